/** One component's view of its own health for GET /health. */
export interface HealthReport {
  ok: boolean;
  [detail: string]: unknown;
}

/** Components register a check; GET /health runs them all. */
export class HealthRegistry {
  private readonly checks = new Map<string, { check: () => Promise<HealthReport> | HealthReport; critical: boolean }>();

  /** Adds or replaces the check reported under `name`; a critical one failing makes the service unhealthy. */
  register(name: string, check: () => Promise<HealthReport> | HealthReport, critical = false): void {
    this.checks.set(name, { check, critical });
  }

  /**
   * Runs every check; a check that throws reports `ok: false` with its message. `healthy` is false when a
   * critical component fails, `degraded` when any other does (the service still answers what it can).
   */
  async run(): Promise<{ healthy: boolean; degraded: boolean; components: Record<string, HealthReport> }> {
    const components: Record<string, HealthReport> = {};
    let healthy = true;
    let degraded = false;
    for (const [name, { check, critical }] of this.checks) {
      try {
        components[name] = await check();
      } catch (err) {
        components[name] = { ok: false, error: err instanceof Error ? err.message : String(err) };
      }
      if (!components[name]!.ok) {
        if (critical) healthy = false;
        else degraded = true;
      }
    }
    return { healthy, degraded, components };
  }
}

/** The components as anyone may see them: each one's `ok`, without the details (hosts, ports, paths, errors). */
export function okOnly(components: Record<string, HealthReport>): Record<string, { ok: boolean }> {
  return Object.fromEntries(Object.entries(components).map(([name, report]) => [name, { ok: report.ok }]));
}
