import { z } from 'zod';

// zod 4 compiles object parsers with `new Function` unless told not to, and probing for it
// raises a Content-Security-Policy violation under our CSP (no 'unsafe-eval'). Every client
// module that parses with a zod schema imports this first (the api files whose schemas
// parsedQueryFn runs, the forms): the first parse may run before any screen.
z.config({ jitless: true });
