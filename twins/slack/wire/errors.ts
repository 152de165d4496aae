// Slack answers every failed call with HTTP 200 and `{ok:false, error:"<code>"}`; the model throws
// this and the method wrapper turns it into that body.

export class SlackError extends Error {
  constructor(
    readonly code: string,
    /** Extra top-level fields of the error body (e.g. `response_metadata.messages`). */
    readonly extra: Record<string, unknown> = {},
    /** False for the few refusals Slack answers without an `error` field (`{ok:false, not_in_channel:true}`). */
    readonly withCode = true,
  ) {
    super(code);
  }
}

/** Slack's answer to a required argument that is missing or malformed (each problem one message). */
export function invalidArguments(...messages: string[]): SlackError {
  return new SlackError('invalid_arguments', { response_metadata: { messages: messages.map((m) => `[ERROR] ${m}`) } });
}

/**
 * An operation the twin does not simulate (decisions §15), as Slack answers every failed call: HTTP
 * 200, `ok: false`, `error: "not_supported_by_twin"`, the sentence in `response_metadata.messages`.
 * `@slack/web-api` raises it as a platform error (`code: slack_webapi_platform_error`, message
 * "An API error occurred: not_supported_by_twin", the body in `data`).
 */
export function notSupportedByTwin(sentence: string): SlackError {
  return new SlackError('not_supported_by_twin', { response_metadata: { messages: [`[ERROR] ${sentence}`] } });
}
