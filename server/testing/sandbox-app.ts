/** The sandbox receivers in a Fastify app of their own, on a free loopback port, for tests. */
import Fastify from 'fastify';
import type { AddressInfo } from 'node:net';
import { createSandbox, registerSandbox, type Sandbox } from '../sandbox/plugin.ts';

export interface SandboxApp {
  sandbox: Sandbox;
  /** `http://127.0.0.1:<port>/sandbox` */
  base: string;
  close(): Promise<void>;
}

export async function startSandboxApp(options: { smtp: boolean }): Promise<SandboxApp> {
  const sandbox = createSandbox({ smtpPort: 0 });
  if (options.smtp) await sandbox.start();
  const app = Fastify();
  await registerSandbox(app, sandbox);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    sandbox,
    base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/sandbox`,
    async close() {
      await app.close();
      await sandbox.stop();
    },
  };
}
