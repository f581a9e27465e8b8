/**
 * The part of OpenAPI 3.1 this service uses, typed so that a misspelt keyword (`additionalProperty`,
 * `requried`) is a compile error rather than a silently ignored key in the published document.
 * Specification extensions (`x-...`) are allowed where OpenAPI allows them.
 */

type Extensions = { [key: `x-${string}`]: unknown };

export interface Reference {
  $ref: string;
  summary?: string;
  description?: string;
}

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

/** A JSON Schema 2020-12 schema (the OpenAPI 3.1 dialect), limited to the keywords used here. */
export interface Schema extends Extensions {
  $ref?: string;
  $comment?: string;
  title?: string;
  description?: string;
  type?: JsonType | JsonType[];
  enum?: readonly unknown[];
  const?: unknown;
  default?: unknown;
  examples?: readonly unknown[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  properties?: Record<string, Schema>;
  required?: readonly string[];
  additionalProperties?: boolean | Schema;
  minProperties?: number;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  not?: Schema;
  if?: Schema;
  then?: Schema;
  else?: Schema;
  readOnly?: boolean;
  writeOnly?: boolean;
  deprecated?: boolean;
  discriminator?: { propertyName: string; mapping?: Record<string, string> };
}

export interface Example {
  summary?: string;
  description?: string;
  value: unknown;
}

export interface Header extends Extensions {
  description?: string;
  required?: boolean;
  schema: Schema;
  example?: unknown;
}

export interface MediaType extends Extensions {
  schema: Schema;
  examples?: Record<string, Example | Reference>;
}

export interface Response extends Extensions {
  description: string;
  headers?: Record<string, Header | Reference>;
  content?: Record<string, MediaType>;
}

export interface Parameter extends Extensions {
  name: string;
  in: 'query' | 'header' | 'path' | 'cookie';
  description?: string;
  required?: boolean;
  deprecated?: boolean;
  style?: 'form' | 'simple';
  explode?: boolean;
  schema: Schema;
  example?: unknown;
}

export interface RequestBody extends Extensions {
  description?: string;
  required?: boolean;
  content: Record<string, MediaType>;
}

export type SecurityRequirement = Record<string, string[]>;

export interface Operation extends Extensions {
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
  parameters?: (Parameter | Reference)[];
  requestBody?: RequestBody | Reference;
  responses: Record<string, Response | Reference>;
  security?: SecurityRequirement[];
}

export type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';

export type PathItem = Extensions & {
  summary?: string;
  description?: string;
  parameters?: (Parameter | Reference)[];
} & { [M in Method]?: Operation };

export interface OAuthFlow {
  authorizationUrl: string;
  tokenUrl: string;
  refreshUrl?: string;
  scopes: Record<string, string>;
}

export type SecurityScheme = Extensions & { description?: string } & (
    | { type: 'http'; scheme: string; bearerFormat?: string }
    | { type: 'apiKey'; name: string; in: 'header' | 'query' | 'cookie' }
    | { type: 'oauth2'; flows: { authorizationCode: OAuthFlow } }
  );

export interface Components {
  schemas: Record<string, Schema>;
  responses: Record<string, Response>;
  parameters: Record<string, Parameter>;
  headers: Record<string, Header>;
  securitySchemes: Record<string, SecurityScheme>;
}

export interface Tag {
  name: string;
  description?: string;
}

export interface OpenApiDocument extends Extensions {
  openapi: '3.1.0';
  jsonSchemaDialect?: string;
  info: {
    title: string;
    version: string;
    summary?: string;
    description?: string;
    license?: { name: string; identifier?: string; url?: string };
  };
  servers: { url: string; description?: string }[];
  security: SecurityRequirement[];
  tags: Tag[];
  paths: Record<string, PathItem>;
  components: Components;
}
