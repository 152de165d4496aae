// The starting pages of a fresh workspace, made through the page and database models.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { appendChildren } from './blocks.js';
import { createDatabase } from './databases.js';
import { createPage } from './pages.js';
import { LATEST_VERSION } from '../wire/version.js';

const API = { version: LATEST_VERSION, dataSources: true };

export const TASKS_SCHEMA = {
  Name: { title: {} },
  Status: { status: {} },
  Tags: {
    multi_select: {
      options: [
        { name: 'design', color: 'purple' },
        { name: 'backend', color: 'blue' },
        { name: 'urgent', color: 'red' },
      ],
    },
  },
  Assignee: { people: {} },
  Due: { date: {} },
  Done: { checkbox: {} },
  Estimate: { number: { format: 'number' } },
};

export function createStartingPages(ctx: TwinContext): void {
  const home = createPage(ctx, { parent: { workspace: true }, properties: { title: [{ text: { content: 'Team Home' } }] } }, API);
  appendChildren(ctx, home.id, [{ paragraph: { rich_text: [{ text: { content: 'Welcome to Twin Works. Tasks live in the database below.' } }] } }], undefined);
  createDatabase(ctx, { parent: { page_id: home.id }, title: [{ text: { content: 'Tasks' } }], initial_data_source: { properties: TASKS_SCHEMA } }, API);
}
