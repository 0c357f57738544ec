import { Bitcoin, Bot, BrainCircuit, Cpu, Flame, ListChecks, Sparkles, TrendingUp, Zap, type LucideIcon } from 'lucide-react';

export type DashboardItem = {
  name: string;
  /** Who makes the model, shown under the name. */
  maker?: string;
  description: string;
  Icon: LucideIcon;
  /** Where Start Chat / Launch Agent leads. */
  to: string;
  /** SPEC: GPT, Claude, Gemini and Grok need the admin role; DeepSeek and Llama do not. */
  adminOnly: boolean;
};

export const ASSISTANTS: DashboardItem[] = [
  {
    name: 'GPT',
    maker: 'OpenAI',
    description: 'Versatile models for writing, analysis, coding and everyday questions.',
    Icon: Sparkles,
    to: '/chat-console',
    adminOnly: true,
  },
  {
    name: 'Claude',
    maker: 'Anthropic',
    description: 'Careful reasoning over long documents, with thoughtful, well-structured answers.',
    Icon: BrainCircuit,
    to: '/claude-chat',
    adminOnly: true,
  },
  {
    name: 'Gemini',
    maker: 'Google',
    description: 'Fast multimodal models for research, summaries and quick answers.',
    Icon: Zap,
    to: '/gemini-chat',
    adminOnly: true,
  },
  {
    name: 'Grok',
    maker: 'xAI',
    description: 'Direct, up-to-date answers, plus image generation.',
    Icon: Flame,
    to: '/grok-chat',
    adminOnly: true,
  },
  {
    name: 'DeepSeek',
    maker: 'DeepSeek',
    description: 'Open-weight reasoning model, strong at mathematics and code.',
    Icon: Cpu,
    to: '/deepseek-chat',
    adminOnly: false,
  },
  {
    name: 'Llama',
    maker: 'Meta',
    description: 'Meta’s open Llama models, served from your own infrastructure.',
    Icon: Bot,
    to: '/llama-chat',
    adminOnly: false,
  },
];

export const AGENTS: DashboardItem[] = [
  {
    name: 'Stock Trader',
    description: 'Scans your stock watchlist with SMA, EMA and RSI and alerts you to unusual price and volume moves.',
    Icon: TrendingUp,
    to: '/agents-console',
    adminOnly: true,
  },
  {
    name: 'Crypto Trader',
    description: 'Monitors crypto markets across exchanges for price swings, volatility and volume spikes.',
    Icon: Bitcoin,
    to: '/agents-console',
    adminOnly: true,
  },
  // Issue 30: the third template (decision 0074 adds its card to SPEC's two).
  {
    name: 'Custom Monitor',
    description: 'Watches a list of stocks and crypto pairs you choose and alerts you when conditions of your own are met.',
    Icon: ListChecks,
    to: '/agents-console',
    adminOnly: true,
  },
];
