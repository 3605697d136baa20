// Before each medium, e2e and browser file: the app it starts in this process hashes passwords at the test cost
// (backend/src/modules/auth/password.ts, usePasswordTestCost). The built app the failure and scale-out suites
// spawn, and the unit specs, keep the production cost.
import { usePasswordTestCost } from '../../backend/src/modules/auth/password';

usePasswordTestCost();
