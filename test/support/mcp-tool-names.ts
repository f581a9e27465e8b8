/**
 * The MCP tools every caller with the write scope lists, in the order tools/list gives them (the
 * route declarations' order, which the endpoint keeps fixed). Written out here, not read from the
 * declarations, so a tool renamed, dropped or moved fails the tests that compare against it.
 */
export const TOOL_NAMES = [
  'who_am_i',
  'list_my_orgs',
  'list_projects',
  'create_project',
  'get_project',
  'update_project',
  'delete_project',
  'list_issues',
  'create_issue',
  'bulk_issues',
  'get_issue',
  'update_issue',
  'delete_issue',
  'list_comments',
  'create_comment',
  'update_comment',
  'delete_comment',
  'list_labels',
  'create_label',
  'update_label',
  'delete_label',
  'add_issue_labels',
  'set_issue_labels',
  'remove_issue_label',
  'search_people',
  'palette_search',
];
