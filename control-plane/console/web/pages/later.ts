// Every page but the environments list and sign-in, in one chunk loaded by import() (main.tsx):
// one chunk rather than one per page, so the script a first visit waits for shares a single chunk
// with the rest (esbuild puts code in a chunk per set of entry points using it).

export { EnvironmentPage } from './environment.js';
export { SeedsPage } from './seeds.js';
export { ScenariosPage } from './scenarios.js';
export { TestsPage, TestPage, AttemptPage } from './tests.js';
export { OrganizationPage } from './organization.js';
export { CatalogPage } from './catalog.js';
