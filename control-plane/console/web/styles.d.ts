// esbuild bundles the stylesheets the console imports for their effect (scripts/console/build.ts).
declare module '*.css';
