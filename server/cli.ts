/**
 * `onceflow <command>` (the table of commands is server/cli/commands.ts). `start`, `worker`
 * and `migrate` work on the database directly; every other command talks to the running
 * server at ONCEFLOW_URL. Errors end as one sentence and a non-zero exit code.
 */
import { explainClientError } from './cli/client.ts';
import { runCommand } from './cli/commands.ts';
import { UserError } from './engine/errors.ts';

runCommand(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const explained = explainClientError(error);
    if (explained instanceof UserError) {
      console.error(explained.message);
    } else {
      console.error(`Onceflow stopped because of an unexpected error: ${explained.stack ?? explained.message}`);
    }
    process.exit(1);
  },
);
