import { z } from 'zod';

// zod 4 compiles object parsers with `new Function` unless told not to, and probing for it
// raises a Content-Security-Policy violation under our CSP (no 'unsafe-eval'). Every client
// module that parses with a zod schema imports this first.
z.config({ jitless: true });
