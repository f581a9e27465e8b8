import { describe, expect, it } from 'vitest';
import { builder, PreparedForms, prepared } from '../src/db/sql-builder.js';

// Statements compiled once and kept: the forms a request can ask for are many (a GraphQL selection
// picks them), so the cache of forms is bounded, and a value may sit in several places or none.
const byId = (id: string) => builder.selectFrom('issues').select('title').where('id', '=', id);

describe('prepared statements', () => {
  it('keep the text and send each call its values, in the places the statement binds them', () => {
    const twice = prepared(
      (a: string, b: string) =>
        builder
          .selectFrom('issues')
          .select('title')
          .where('id', '=', b)
          .where('org_id', '=', a)
          .where('project_id', '=', b),
      2,
    );
    expect(twice.with('org', 'x').parameters).toEqual(['x', 'org', 'x']);
    expect(twice.text).toBe(twice.with('o', 'y').sql);
  });

  it('refuse a statement that binds anything but its values', () => {
    expect(() => prepared((id: string) => byId(id).where('status', '=', 'Done'), 1)).toThrow(/nothing but its values/);
  });
});

describe('PreparedForms', () => {
  it('builds each form once while it is kept, and keeps at most max, dropping the oldest', () => {
    const forms = new PreparedForms<[string], { title: string }>(1, 3);
    const built: string[] = [];
    const form = (key: string) =>
      forms.get(key, (id) => {
        built.push(key);
        return byId(id);
      });
    for (const key of ['a', 'b', 'c', 'a', 'b', 'c']) form(key);
    expect(built).toEqual(['a', 'b', 'c']);
    // A hostile caller cycling new forms: memory stays at 3 forms, each new one built once.
    for (let i = 0; i < 100; i++) form(`hostile ${i}`);
    expect(built).toHaveLength(103);
    form('hostile 99');
    form('hostile 97');
    expect(built).toHaveLength(103);
    form('a'); // dropped long ago: built again
    expect(built).toHaveLength(104);
    expect(built.at(-1)).toBe('a');
  });
});
