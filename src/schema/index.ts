import { builder } from './builder.js';
import './scalars.js';
import './error-types.js';
import './user.js';
import './organization.js';
import './membership.js';
import './project.js';
import './issue.js';
import './issue-aggregates-type.js';
import './issue-history.js';
import './webhook.js';
import './node-query.js';
import './api-key.js';
import './invitation.js';
import './person.js';
import './palette.js';
import './live.js';

export const schema = builder.toSchema({ sortSchema: true });
