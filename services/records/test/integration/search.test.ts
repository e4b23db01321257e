import { recordSearchSuite } from './search-suite.js';

recordSearchSuite('postgres');
