#!/usr/bin/env node
// The `onceflow` command. The server is TypeScript run through tsx's loader, so the same
// files serve development, tests and production without a separate compile step.
import { register } from 'tsx/esm/api';

register();
await import('../server/cli.ts');
