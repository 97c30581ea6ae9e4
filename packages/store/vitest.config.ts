import { recallVitestConfig } from '../../config/vitest.shared.js';

export default recallVitestConfig();
