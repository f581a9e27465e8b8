/**
 * The errors plugin's options of a field whose answer is a union of its success and the errors
 * that can stop it (`MutationCreateIssueResult = MutationCreateIssueSuccess | ValidationError |
 * NotFoundError`), with the descriptions of the types the plugin generates written once, here:
 *
 * ```ts
 * errors: outcome('createIssue', 'The created issue.', [ValidationError, NotFoundError]),
 * ```
 */
export function outcome<T extends new (...args: never[]) => Error>(field: string, data: string, types: T[]) {
  const errors = types.map((type) => type.name).join(', ');
  return {
    types,
    union: {
      description: `What ${field} answers: its success type, whose \`data\` is the answer, or the error that stopped it (${errors}; each has \`message\` and \`code\`).`,
    },
    result: { description: `${field} succeeded.` },
    dataField: { description: data },
  };
}
