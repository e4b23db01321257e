/** Errors of the users service (InvenioRDM wording where it has one). */
import { AppError, Errors, type FieldError } from '@rdm/platform';

/** Users-specific error catalog. */
export const UserErrors = {
  /**
   * 404 for an unknown user AND for one the caller may not see: InvenioRDM hides existence
   * (`UserNotFoundError`, "The user does not exist.").
   */
  userNotFound: () => new AppError('user_not_found', 404, 'The user does not exist.'),
  /** 404 for an unknown token (CLI). */
  tokenNotFound: () => new AppError('token_not_found', 404, 'The token does not exist.'),
  /** 400 for bad account input (CLI). */
  invalid: (fieldErrors: FieldError[]) => Errors.validation(fieldErrors),
} as const;
