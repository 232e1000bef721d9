// Test helper process: takes the server's process lock on the file named in argv and holds it until killed.
import { ProcessLock } from '../../src/db/sqlite-lock.ts';

ProcessLock.acquire(process.argv[2]!);
process.stdout.write('locked\n');
setInterval(() => {}, 60_000);
