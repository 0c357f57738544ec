import { createContext, useContext } from 'react';
import type { TAuthProvider, TLocalLogin } from '../../contracts/auth.ts';
import type { TRole, TUser } from '../../contracts/users.ts';

export type AuthContextValue = {
  user: TUser | null;
  /** The user's role; guest when signed out or when the server gave none. */
  role: TRole;
  /** True until the session is known, and while a sign-in popup is open. */
  loading: boolean;
  provider: TAuthProvider;
  signInLocal(input: TLocalLogin): Promise<TUser | null>;
  signInWithPopup(): Promise<TUser | null>;
  /** A sign-in a component does itself (passkeys, docs/decisions/0092): its user, with SPEC's
   * 'Login successful' toast, or 'Login failed' with what describeFailure says. */
  signInWith(signIn: () => Promise<{ user: TUser }>, describeFailure: (err: unknown) => string): Promise<TUser | null>;
  logout(): Promise<void>;
};

export const AuthContext = createContext<AuthContextValue | null>(null);

export function useAuth(): AuthContextValue {
  const value = useContext(AuthContext);
  if (!value) throw new Error('useAuth must be used within an AuthProvider');
  return value;
}
