import { defineConfig } from 'vitest/config';

// Unit tests of the model, the policy, the connection and the REST client: plain TypeScript
// against Y documents and fake transports, no browser (the browser tests are in tests/browser).
// The agent-output sanitizer's tests run in jsdom (`@vitest-environment jsdom` in the file).
export default defineConfig({
  test: {
    include: ['test/**/*.spec.ts'],
    environment: 'node'
  }
});
