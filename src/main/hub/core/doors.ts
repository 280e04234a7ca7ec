// Where this hub's doors are reached, as the HTTP door reports it (src/main/app.ts, src/main/container-switch.ts):
// the base URL it listens on, the container listener's switch and the MCP URL agents in containers use. The door
// owns the setters (they are named for what happened to it); every area only reads. A hub without an HTTP door (the
// CLI, tests) keeps the defaults.
import type { ContainersState } from '../../../shared/agents/places';

/** Turns the container listener on or off on the running hub (the owner actions containers.get / containers.set). */
export interface ContainerSwitch {
  state(): ContainersState;
  set(on: boolean): Promise<ContainersState>;
  /** Whether containers are on (the setting, or `perch serve --containers`): asked per request, no I/O. */
  enabled(): boolean;
}

export class Doors {
  private base = 'http://127.0.0.1';
  private containerUrl: string | null = null;
  private switchOf: ContainerSwitch | null = null;

  /** Where this hub's HTTP door listens (e.g. http://127.0.0.1:7457). */
  get baseUrl(): string {
    return this.base;
  }

  /** The MCP URL agents in containers use (a container listener runs: `perch serve --containers`), else null. */
  get containerMcpUrl(): string | null {
    return this.containerUrl;
  }

  /** The container listener's switch while the HTTP door runs (src/main/container-switch.ts); null without one. */
  get containerSwitch(): ContainerSwitch | null {
    return this.switchOf;
  }

  /** The HTTP door listens (app.ts): its base URL, the container switch and the MCP URL for agents in containers. */
  opened(o: { baseUrl: string; containerSwitch: ContainerSwitch | null; containerMcpUrl: string | null }): void {
    this.base = o.baseUrl;
    this.switchOf = o.containerSwitch;
    this.containerUrl = o.containerMcpUrl;
  }

  /** The container listeners started (their MCP URL) or stopped (null) (container-switch.ts). */
  containersListening(mcpUrl: string | null): void {
    this.containerUrl = mcpUrl;
  }

  /** The HTTP door is closing: no container switch to turn any more. */
  closing(): void {
    this.switchOf = null;
  }
}
