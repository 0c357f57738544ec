import { ALL_SOURCES, type TParameterSources } from '../../../../contracts/agent-parameters.ts';
import { appConfig } from '../../../lib/app-config.ts';

/** The outside sources this server has, from the runtime config in the page; where no server wrote
 * one (unit tests), every source, as the templates' own defaults assume. */
export const serverSources = (): TParameterSources => appConfig().sources ?? ALL_SOURCES;
