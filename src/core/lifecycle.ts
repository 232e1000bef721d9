// Background work as a list (issue 31): each capability's factory returns what it runs in the background,
// the composition root keeps those in one list, starts them in order and stops them in reverse, so work
// that depends on another (a sender on the spending broadcaster, that on the chain watchers) stops first.

/** A capability's background work: started by the singleton role's holder, stopped before the database closes. */
export interface Lifecycle {
  start(): void | Promise<void>;
  stop(): Promise<void>;
}

/** Starts each in list order, waiting for each (a first rate refresh) before the next. */
export async function startInOrder(list: readonly Lifecycle[]): Promise<void> {
  for (const item of list) await item.start();
}

/** Stops each in reverse list order. */
export async function stopInReverse(list: readonly Lifecycle[]): Promise<void> {
  for (const item of [...list].reverse()) await item.stop();
}
