#!/usr/bin/env node
/** The `switchboard` executable: forwards to {@link run} and writes its output. */
import { run } from './run.js';

const result = run(process.argv.slice(2));
if (result.stdout !== '') process.stdout.write(result.stdout);
if (result.stderr !== '') process.stderr.write(result.stderr);
process.exitCode = result.exitCode;
