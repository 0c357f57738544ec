import { z } from 'zod';

/** The JSON body of every error the API answers with (DESIGN section 5). */
export const ZApiError = z.object({
  error: z.string(),
  message: z.string().optional(),
  details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export type TApiError = z.infer<typeof ZApiError>;
