// Mutation testing of the outbound address checks (webhooks, client metadata documents): SSRF and DNS rebinding.
import { mutationGroup } from './group.mjs';

export default mutationGroup('outbound-address', {
  mutate: ['src/http/outbound-address.ts'],
  testFiles: ['test/outbound-address.test.ts'],
});
