/** The README's example is shown exactly as examples/ has it, type-checks with the package, and runs. */
import { describeReadmeExamples } from '@recall/config/readme-example';

describeReadmeExamples(import.meta.url);
