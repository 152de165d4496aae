#!/usr/bin/env node
// The `twins` command runs the compiled CLI (build with `npm run build` / `make build`).
import '../dist/control-plane/cli/index.js';
