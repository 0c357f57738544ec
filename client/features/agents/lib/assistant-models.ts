import type { TChatProviderStatus } from '../../../../contracts/chat.ts';

/**
 * The chat assistants' models an agent's own calls can use (Explain alerts' briefs, Describe it's
 * drafts): text models only, since an image model writes no text; and the one chosen first.
 */
export const textModels = (provider: TChatProviderStatus) => provider.models.filter((m) => !m.image);

/** The assistant's own default model when it writes text, else its first text model; undefined when it has none. */
export const defaultTextModel = (provider: TChatProviderStatus): string | undefined => (textModels(provider).find((m) => m.id === provider.defaultModel) ?? textModels(provider)[0])?.id;
