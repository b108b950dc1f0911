/** noop: an empty timed region, so the harness can measure Node's boot and its own overhead. */
import { nowNs } from '../protocol.js';

export const noop = {
  name: 'noop',
  params: {},
  models: { seq: { family: 'seq' } },
  async prepare() {
    return {
      async runOnce() {
        const start = nowNs();
        const ns = nowNs() - start;
        return { ns, items: 0, checksum: 'noop' };
      },
    };
  },
};
