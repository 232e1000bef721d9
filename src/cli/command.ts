/** One CLI command: the words that name it, a summary line, usage text, and what it does. */
export interface Command {
  path: string[];
  summary: string;
  usage: string;
  run(args: string[]): Promise<number | void>;
}

/** Raised for a user's mistake on the command line; printed without a stack trace. */
export class UsageError extends Error {}

/** Every value of a repeatable option, `--name <value>` or `--name=value`, in order; a bare `--name` is a usage error. */
export function optionValues(args: string[], name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === name) {
      const v = args[i + 1];
      if (v === undefined || v.startsWith('--')) throw new UsageError(`${name} needs a value`);
      out.push(v);
      i++;
    } else if (a.startsWith(`${name}=`)) out.push(a.slice(name.length + 1));
  }
  return out;
}
