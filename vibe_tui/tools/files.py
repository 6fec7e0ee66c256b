"""The file tools: read_file, list_dir (``file_read``), write_file and edit_file
(``file_write``).

Every path goes through ``resolve_in_workspace`` in ``precheck``, so nothing here
touches a file outside the workspace. How a text file is read and written back lives in
``text_file``; the hunks a user may pick from an edit's diff in ``hunks``.
"""

from __future__ import annotations

from vibe_tui.tools.file_read import ListDirTool, ReadFileTool
from vibe_tui.tools.file_write import EditFileTool, WriteFileTool

FILE_TOOLS = [ReadFileTool(), ListDirTool(), WriteFileTool(), EditFileTool()]
