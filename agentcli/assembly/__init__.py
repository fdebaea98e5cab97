"""From Settings to a ready Agent: provider selection, the first-run check, and assembly of every part a run uses."""
