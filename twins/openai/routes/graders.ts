// POST /v1/fine_tuning/alpha/graders/run and /validate.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { grade, readGrader } from '../model/graders.js';
import { missingParameter } from '../wire/errors.js';
import { get, operationBody, reqString } from '../wire/params.js';

export const graderRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/fine_tuning/alpha/graders/run',
    handler(req) {
      const body = operationBody(req, 'POST /v1/fine_tuning/alpha/graders/run');
      const g = get(body, 'grader');
      if (g === undefined) throw missingParameter('grader');
      const grader = readGrader(g, 'grader', 'POST /v1/fine_tuning/alpha/graders/run');
      const sample = reqString(body, 'model_sample');
      const item = get(body, 'item') ?? {};
      const { score } = grade(grader, { item, sample: { output_text: sample } });
      return {
        status: 200,
        body: {
          reward: score,
          metadata: {
            name: grader.name,
            type: grader.type,
            errors: {},
            execution_time: 0,
            scores: { [grader.name]: score },
            token_usage: null,
            sampled_model_name: null,
          },
          sub_rewards: {},
          model_grader_token_usage_per_model: {},
        },
      };
    },
  },
  {
    method: 'POST',
    path: '/v1/fine_tuning/alpha/graders/validate',
    handler(req) {
      const body = operationBody(req, 'POST /v1/fine_tuning/alpha/graders/validate');
      const g = get(body, 'grader');
      if (g === undefined) throw missingParameter('grader');
      readGrader(g, 'grader', 'POST /v1/fine_tuning/alpha/graders/validate');
      return { status: 200, body: { grader: g } };
    },
  },
];
