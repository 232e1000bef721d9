// Runs every benchmark, one child process each so none inherits another's heap or JIT state:
// the chain scan, the HTTP API, start time, the ledger export, then light mode on an Esplora source (a few minutes). Output passes through; the exit code is the first failure's.
// Run: node bin/run-ts.js bench/run-all.ts
import { spawn } from 'node:child_process';

const BENCHMARKS = ['bench/chain-scan.ts', 'bench/api.ts', 'bench/start-time.ts', 'bench/report-export.ts', 'bench/light-esplora.ts'];

/** Runs `node bin/run-ts.js <file>` with inherited output and resolves to its exit code. */
function runBenchmark(file: string): Promise<number> {
  return new Promise((resolve, reject) => {
    // --expose-gc: the export bench takes its RSS baseline after a collection.
    const child = spawn(process.execPath, ['--expose-gc', 'bin/run-ts.js', file], { stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

let exitCode = 0;
for (const file of BENCHMARKS) {
  console.log(`\n=== ${file} ===`);
  const code = await runBenchmark(file);
  if (code !== 0) {
    console.log(`=== ${file} exited with code ${code} ===`);
    if (exitCode === 0) exitCode = code;
  }
}
process.exitCode = exitCode;
