// TypeBox schemas routes share.
import { Type } from '@sinclair/typebox';

/** The wallet API envelope's fields (`return`, `status`), spread into each response schema. */
export const EnvelopeFields = { return: Type.String(), status: Type.String() };
