// The phrasebook's vocabulary: every twin's operations (twins/<slug>/vocabulary/phrasebook.ts), in
// the order the compiler tries them. The building blocks live in twin-runtime/phrasebook.ts.

import { GITHUB_OPERATIONS } from '../../twins/github/vocabulary/phrasebook.js';
import { JIRA_OPERATIONS } from '../../twins/jira/vocabulary/phrasebook.js';
import { TWILIO_OPERATIONS } from '../../twins/twilio/vocabulary/phrasebook.js';
import { SENDGRID_OPERATIONS } from '../../twins/sendgrid/vocabulary/phrasebook.js';
import { LINEAR_OPERATIONS } from '../../twins/linear/vocabulary/phrasebook.js';
import { NOTION_OPERATIONS } from '../../twins/notion/vocabulary/phrasebook.js';
import { SLACK_OPERATIONS } from '../../twins/slack/vocabulary/phrasebook.js';
import { OPENAI_OPERATIONS } from '../../twins/openai/vocabulary/phrasebook.js';
import { ANTHROPIC_OPERATIONS } from '../../twins/anthropic/vocabulary/phrasebook.js';
import { STRIPE_OPERATIONS } from '../../twins/stripe/vocabulary/phrasebook.js';
import type { PhrasebookOperation as Operation } from '../../twin-runtime/phrasebook.js';

export type { Modifier, ModifierName, ModifierRule, PhrasebookOperation as Operation } from '../../twin-runtime/phrasebook.js';

export const OPERATIONS: Operation[] = [
  ...STRIPE_OPERATIONS,
  ...GITHUB_OPERATIONS,
  ...SLACK_OPERATIONS,
  ...OPENAI_OPERATIONS,
  ...ANTHROPIC_OPERATIONS,
  ...LINEAR_OPERATIONS,
  ...JIRA_OPERATIONS,
  ...NOTION_OPERATIONS,
  ...TWILIO_OPERATIONS,
  ...SENDGRID_OPERATIONS,
];
