/**
 * The home-folder confirmation: `withHomeConfirm(path, action)` runs a folder action; when the
 * gateway refuses the folder as the user's home folder (`invalid_folder`, reason home), it asks
 * whether they really mean their whole home folder and only on yes runs the action again with
 * `confirmHome`. Resolves undefined when they said no. `dialog` is the question to render.
 */
import { useCallback, useState, type ReactNode } from 'react';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { isHomeRefusal } from '../lib/folders';

export interface HomeConfirm {
  withHomeConfirm: <T>(path: string, action: (confirmHome: boolean) => Promise<T>) => Promise<T | undefined>;
  dialog: ReactNode;
}

export function useHomeConfirm(): HomeConfirm {
  const [ask, setAsk] = useState<{ path: string; answer: (yes: boolean) => void } | null>(null);
  const withHomeConfirm = useCallback(async <T,>(path: string, action: (confirmHome: boolean) => Promise<T>): Promise<T | undefined> => {
    try {
      return await action(false);
    } catch (err) {
      if (!isHomeRefusal(err)) throw err;
      const yes = await new Promise<boolean>((answer) => setAsk({ path, answer }));
      setAsk(null);
      return yes ? await action(true) : undefined;
    }
  }, []);
  const dialog = ask && (
    <ConfirmDialog title="Use your whole home folder?" yesLabel="Use the home folder" noLabel="Choose another folder" onAnswer={ask.answer}>
      <p>
        <code>{ask.path}</code> is your home folder. As a project folder it covers every folder below it: an agent started anywhere in your
        home (<code>recall mcp --cwd</code>) would search this project’s history.
      </p>
      <p>Usually a project is one repository or work folder inside it.</p>
    </ConfirmDialog>
  );
  return { withHomeConfirm, dialog };
}
