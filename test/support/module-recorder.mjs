// `node --import ./test/support/module-recorder.mjs ...`: appends the URL of every module the
// process loads from node_modules to the file MODULE_LOG names, one a line, so that a test can
// tell which packages a service it started has loaded (test/ops/tracing-off.test.ts).
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const log = process.env.MODULE_LOG;
if (log) {
  registerHooks({
    load(url, context, nextLoad) {
      if (url.includes('/node_modules/')) appendFileSync(log, `${url}\n`);
      return nextLoad(url, context);
    },
  });
}
