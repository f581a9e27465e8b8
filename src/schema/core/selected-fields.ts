import type { FieldNode, FragmentDefinitionNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';

/**
 * The names of the fields a query selects at `path` below the field `info` resolves (through
 * aliases, inline fragments and fragment spreads, whatever their type conditions and
 * directives: a superset of what will run), or null when it selects nothing there.
 */
export function selectedFieldNames(info: GraphQLResolveInfo, path: readonly string[]): Set<string> | null {
  let level: SelectionSetNode[] = info.fieldNodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));
  for (const name of path) {
    const next: SelectionSetNode[] = [];
    for (const field of fieldsOf(level, info.fragments))
      if (field.name.value === name && field.selectionSet) next.push(field.selectionSet);
    if (!next.length) return null;
    level = next;
  }
  return new Set(fieldsOf(level, info.fragments).map((field) => field.name.value));
}

function fieldsOf(
  sets: SelectionSetNode[],
  fragments: Record<string, FragmentDefinitionNode>,
  seen = new Set<string>(),
): FieldNode[] {
  const fields: FieldNode[] = [];
  for (const set of sets) {
    for (const selection of set.selections) {
      if (selection.kind === 'Field') fields.push(selection);
      else if (selection.kind === 'InlineFragment') fields.push(...fieldsOf([selection.selectionSet], fragments, seen));
      else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        const fragment = fragments[selection.name.value];
        if (fragment) fields.push(...fieldsOf([fragment.selectionSet], fragments, seen));
      }
    }
  }
  return fields;
}
