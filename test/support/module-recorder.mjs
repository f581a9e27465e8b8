// `node --import ./test/support/module-recorder.mjs ...`: appends the URL of every file the
// process loads as a module (its own and its packages', not Node's built-in ones) to the file
// MODULE_LOG names, one a line, so that a test can tell what a service it started has loaded
// (test/ops/tracing-off.test.ts).
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const log = process.env.MODULE_LOG;
if (log) {
  registerHooks({
    load(url, context, nextLoad) {
      if (url.startsWith('file:')) appendFileSync(log, `${url}\n`);
      return nextLoad(url, context);
    },
  });
}
