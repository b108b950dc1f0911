/** noop: an empty timed region, so the harness can measure Node's boot and its own overhead. */
export const noop = {
  name: 'noop',
  params: {},
  models: { seq: { family: 'seq' } },
  async prepare() {
    return {
      async runOnce(repetition) {
        repetition.startClock();
        repetition.stopClock();
        return { items: 0, checksum: await repetition.checksum(() => 'noop') };
      },
    };
  },
};
