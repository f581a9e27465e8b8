// Mutation testing of JSON-RPC batch metering on the MCP endpoint: caps, draws, invalid params.
import { mutationGroup } from './group.mjs';

export default mutationGroup('mcp-batch', {
  mutate: ['src/mcp/batch.ts', 'src/mcp/messages.ts'],
  testFiles: ['test/mcp-batch-checks.test.ts'],
});
