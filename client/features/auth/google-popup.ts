/** Opens Google sign-in in a 500x600 popup and resolves when it reports success.
 * Filled in by the Google sign-in work. */
export async function openGoogleSignIn(): Promise<void> {
  throw new Error('Failed to sign in with Google');
}
