/** One CLI command: the words that name it, a summary line, usage text, and what it does. */
export interface Command {
  path: string[];
  summary: string;
  usage: string;
  run(args: string[]): Promise<number | void>;
}

/** Raised for a user's mistake on the command line; printed without a stack trace. */
export class UsageError extends Error {}
