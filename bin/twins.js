#!/usr/bin/env node
// The `twins` command runs the compiled control plane (build with `npm run build` / `make build`).
import '../dist/control-plane/cli.js';
