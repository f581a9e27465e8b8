import type {
  HeaderObject,
  MediaTypeObject,
  OAuthFlowObject,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
  SecuritySchemeObject,
} from 'openapi3-ts/oas31';

// openapi3-ts' OpenAPI 3.1 types, narrowed to what this service's document always has, so the
// tests can walk it without a check at every step (a missing part fails the test that reads it).
export type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
export type Reference = ReferenceObject;
// A schema is walked as the JSON it is: any keyword may be read (the validators check the rest).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Schema = SchemaObject & Record<string, any>;
export type Header = HeaderObject & { schema: Schema };
export type MediaType = MediaTypeObject & { schema: Schema };
export type Parameter = ParameterObject & { schema: Schema };
export type DocResponse = ResponseObject & {
  content?: Record<string, MediaType>;
  headers?: Record<string, Header | Reference>;
};
export type Operation = OperationObject & {
  operationId: string;
  responses: Record<string, DocResponse | Reference>;
  security?: Record<string, string[]>[];
};
type PathItem = Partial<Record<Method, Operation>> & { parameters?: (Parameter | Reference)[] };
type Scheme = SecuritySchemeObject & {
  flows: { authorizationCode: OAuthFlowObject & { scopes: Record<string, string> } };
  description?: string;
};
export interface OpenApiDocument {
  openapi: string;
  info: Record<string, unknown>;
  servers: { url: string; description?: string }[];
  paths: Record<string, PathItem>;
  components: {
    schemas: Record<string, Schema>;
    responses: Record<string, DocResponse>;
    parameters: Record<string, Parameter>;
    headers: Record<string, Header>;
    securitySchemes: Record<string, Scheme>;
  };
  [key: string]: unknown;
}
