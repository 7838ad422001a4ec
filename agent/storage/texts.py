"""The storage's messages in English, Chinese and Japanese: a bad ``storage.url``, a PostgreSQL that
cannot be reached, a missing driver. Each says what is wrong, where, and how to fix it."""

from __future__ import annotations

from agent.i18n import pick

TEXTS: dict[str, dict[str, str]] = {
    "bad_url": {
        "en": "storage.url {url!r} is not a database address Riverse knows; use sqlite:///PATH (the default is "
              "sqlite:///<home>/riverse.db) or postgresql://USER:PASSWORD@HOST:PORT/DATABASE, in settings.yaml "
              "or RIVERSE_DATABASE_URL",
        "zh": "storage.url {url!r} 不是 Riverse 认识的数据库地址；请在 settings.yaml 或 RIVERSE_DATABASE_URL 中使用 "
              "sqlite:///路径（默认 sqlite:///<home>/riverse.db）或 postgresql://用户:密码@主机:端口/数据库",
        "ja": "storage.url {url!r} は Riverse が扱えるデータベースのアドレスではありません。settings.yaml か "
              "RIVERSE_DATABASE_URL で sqlite:///パス（既定は sqlite:///<home>/riverse.db）または "
              "postgresql://ユーザー:パスワード@ホスト:ポート/データベース を指定してください",
    },
    "no_driver": {
        "en": "storage.url names PostgreSQL, but its driver is not installed: run pip install 'riverse[postgres]' "
              "(psycopg and psycopg_pool) in the Python that runs Riverse",
        "zh": "storage.url 指向 PostgreSQL，但其驱动没有安装：请在运行 Riverse 的 Python 中执行 "
              "pip install 'riverse[postgres]'（psycopg 与 psycopg_pool）",
        "ja": "storage.url は PostgreSQL を指していますが、ドライバーが入っていません。Riverse を動かす Python で "
              "pip install 'riverse[postgres]'（psycopg と psycopg_pool）を実行してください",
    },
    "unreachable": {
        "en": "cannot open the PostgreSQL database {where} ({setting}) [{reason}]; check that the server runs and "
              "listens there, and that the user, password and database name in {setting} are right",
        "zh": "无法打开 PostgreSQL 数据库 {where}（{setting}）[{reason}]；请确认服务器正在运行并监听该地址，"
              "且 {setting} 中的用户名、密码和数据库名正确",
        "ja": "PostgreSQL データベース {where}（{setting}）を開けません [{reason}]。サーバーが動いていてそこで待ち受けているか、"
              "{setting} のユーザー名・パスワード・データベース名が正しいか確認してください",
    },
    "lost": {
        "en": "the PostgreSQL database {where} stopped answering [{reason}]; the last change was not stored. "
              "Check the database server and try again",
        "zh": "PostgreSQL 数据库 {where} 没有响应 [{reason}]；最后一次修改没有保存。请检查数据库服务器后重试",
        "ja": "PostgreSQL データベース {where} が応答しなくなりました [{reason}]。最後の変更は保存されていません。"
              "データベースサーバーを確認して、もう一度試してください",
    },
}


def text(key: str, language: str | None = "en", **values: object) -> str:
    return pick(TEXTS[key], language, **values)
