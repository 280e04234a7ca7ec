// The narrow bridge between the app's window and the main process. Nothing else is exposed.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { IPC, navigateTarget, type PerchBridge } from '../../shared/ipc';

const bridge: PerchBridge = {
  call: (action, input) => ipcRenderer.invoke(IPC.call, String(action), input ?? {}),
  onEvent(cb) {
    const listener = (_e: IpcRendererEvent, item: unknown) => cb(item);
    ipcRenderer.on(IPC.event, listener);
    return () => ipcRenderer.off(IPC.event, listener);
  },
  setFocus: (convId) => ipcRenderer.send(IPC.focus, convId === null ? null : String(convId)),
  onNavigate(cb) {
    const listener = (_e: IpcRendererEvent, target: unknown) => {
      const t = navigateTarget(target);
      if (t) cb(t);
    };
    ipcRenderer.on(IPC.navigate, listener);
    return () => ipcRenderer.off(IPC.navigate, listener);
  },
};

contextBridge.exposeInMainWorld('perch', bridge);
