import { z } from 'zod';

/**
 * zod's record drops an own `__proto__` key (JSON.parse makes one) without a word, where any other
 * key it would refuse is reported: this preprocess step reports it by name before the record sees it.
 */
export const refuseProtoKey =
  (code: 'unrecognized' | 'invalid_value', message: string) =>
  (input: unknown, ctx: z.core.$RefinementCtx) => {
    if (typeof input === 'object' && input !== null && Object.hasOwn(input, '__proto__')) {
      ctx.addIssue({ code: 'custom', path: ['__proto__'], message, params: { code } });
    }
    return input;
  };
