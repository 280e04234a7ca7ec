// Loads every module that registers agent tools, so callers import one place.
import './agent-tools';
import './requests';
import './cards';
import './handoffs';
import './tasks';
import './claims';
import './floor';
import './state';
import './context';
import './files';
export { callAgentTool, implementedTools } from './agent-tools';
