import { openApiDocument } from '../openapi.js';
import type { Route } from '../route.js';
import { apiKeyRoutes } from './api-keys.js';
import { issueRoutes } from './issues.js';
import { labelRoutes } from './labels.js';
import { meRoutes } from './me.js';
import { openApiRoute } from './openapi.js';
import { orgRoutes } from './orgs.js';
import { projectRoutes } from './projects.js';
import { searchRoutes } from './search.js';
import { webhookRoutes } from './webhooks.js';

/** Every REST route under /api, in the order the OpenAPI document lists them. */
export const ROUTES: readonly Route[] = [
  ...meRoutes,
  ...projectRoutes,
  ...issueRoutes,
  ...labelRoutes,
  ...apiKeyRoutes,
  ...orgRoutes,
  ...searchRoutes,
  ...webhookRoutes,
  openApiRoute((config) => openApiDocument(config, ROUTES)),
];
