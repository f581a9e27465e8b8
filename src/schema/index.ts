import { builder } from './core/builder.js';
import './core/scalars.js';
import './core/error-types.js';
import './people/user.js';
import './organizations/organization.js';
import './organizations/membership.js';
import './projects/project.js';
import './issues/issue.js';
import './issues/aggregates-type.js';
import './issues/history.js';
import './webhooks/webhook.js';
import './core/node-query.js';
import './keys/api-key.js';
import './organizations/invitation.js';
import './people/person.js';
import './people/palette.js';
import './core/live.js';

export const schema = builder.toSchema({ sortSchema: true });
