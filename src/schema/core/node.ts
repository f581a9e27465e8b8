import { builder } from './builder.js';

/** A value `node` found, tagged with the GraphQL type it is. */
export type NodeValue = { id: string; __nodeType: 'Issue' | 'Project' | 'User' };

/**
 * Relay's Node. Our ids are UUIDs, unique across every table, so they serve as global ids as
 * they are: the REST API and GraphQL name an object by the same id.
 */
export const NodeRef = builder.interfaceRef<{ id: string }>('Node').implement({
  description: 'An object that can be fetched by its id alone, with node(id:).',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'A UUID, unique across every kind of object: what node(id:) takes.' }),
  }),
  resolveType: (value) => (value as NodeValue).__nodeType,
});
