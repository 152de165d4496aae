// The system fields the twin's issues carry (what `GET /issue/{key}` answers and JQL searches), as
// `GET /field` lists them: id, name, JSON type, JQL clause names, and whether they can be ordered
// by, shown in a search, and searched. The twin keeps no custom fields.

type Schema = { type: string; system: string; items?: string };

interface SystemField {
  id: string;
  name: string;
  schema: Schema;
  clauseNames: string[];
  orderable: boolean;
  navigable: boolean;
  searchable: boolean;
}

const field = (
  id: string,
  name: string,
  type: string,
  clauseNames: string[],
  opts: { items?: string; orderable?: boolean; searchable?: boolean } = {},
): SystemField => ({
  id,
  name,
  schema: { type, system: id, ...(opts.items ? { items: opts.items } : {}) },
  clauseNames,
  orderable: opts.orderable ?? true,
  navigable: true,
  searchable: opts.searchable ?? true,
});

export const SYSTEM_FIELDS: SystemField[] = [
  field('summary', 'Summary', 'string', ['summary']),
  field('description', 'Description', 'string', ['description']),
  field('issuetype', 'Issue Type', 'issuetype', ['issuetype', 'type']),
  field('project', 'Project', 'project', ['project'], { orderable: false }),
  field('status', 'Status', 'status', ['status'], { orderable: false }),
  field('statusCategory', 'Status Category', 'statusCategory', ['statusCategory'], { orderable: false }),
  field('statuscategorychangedate', 'Status Category Changed', 'datetime', ['statusCategoryChangedDate'], { orderable: false }),
  field('priority', 'Priority', 'priority', ['priority']),
  field('assignee', 'Assignee', 'user', ['assignee']),
  field('reporter', 'Reporter', 'user', ['reporter']),
  field('creator', 'Creator', 'user', ['creator'], { orderable: false }),
  field('labels', 'Labels', 'array', ['labels'], { items: 'string' }),
  field('created', 'Created', 'datetime', ['created', 'createdDate'], { orderable: false }),
  field('updated', 'Updated', 'datetime', ['updated', 'updatedDate'], { orderable: false }),
  field('duedate', 'Due date', 'date', ['due', 'duedate']),
  field('resolution', 'Resolution', 'resolution', ['resolution']),
  field('resolutiondate', 'Resolved', 'datetime', ['resolutiondate', 'resolved'], { orderable: false }),
  field('timespent', 'Time Spent', 'number', ['timespent'], { orderable: false }),
  field('aggregatetimespent', 'Σ Time Spent', 'number', [], { orderable: false, searchable: false }),
  field('parent', 'Parent', 'issuelink', ['parent']),
  field('subtasks', 'Sub-tasks', 'array', ['subtasks'], { items: 'issuelinks', orderable: false }),
  field('comment', 'Comment', 'comments-page', ['comment']),
  field('watches', 'Watchers', 'watches', ['watchers'], { orderable: false }),
  field('votes', 'Votes', 'votes', ['votes'], { orderable: false }),
  field('issuelinks', 'Linked Issues', 'array', ['issueLink'], { items: 'issuelinks' }),
  field('components', 'Components', 'array', ['component'], { items: 'component' }),
  field('fixVersions', 'Fix versions', 'array', ['fixVersion'], { items: 'version' }),
  field('versions', 'Affects versions', 'array', ['affectedVersion'], { items: 'version' }),
];
