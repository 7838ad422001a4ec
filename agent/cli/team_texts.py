"""Texts of ``riverse users`` and ``riverse db`` in English, Chinese and Japanese."""

from __future__ import annotations

from agent.i18n import pick

TEXTS: dict[str, dict[str, str]] = {
    "user_added": {
        "en": "Added user {name}{admin}. Their token, shown this once (Riverse keeps only its hash):\n{token}\n"
              "They send it as 'Authorization: Bearer <token>' (an OpenAI client's API key), or sign in with it "
              "at /login in a browser. Every request to the server now needs a user's token.",
        "zh": "已添加用户 {name}{admin}。其令牌只显示这一次（Riverse 只保存其哈希）：\n{token}\n"
              "用户以 'Authorization: Bearer <令牌>'（OpenAI 客户端的 API key）发送它，或在浏览器中于 /login 用它登录。"
              "从现在起，服务器的每个请求都需要某个用户的令牌。",
        "ja": "ユーザー {name}{admin} を追加しました。トークンは今回だけ表示します（Riverse はハッシュだけを保存します）：\n"
              "{token}\n'Authorization: Bearer <トークン>'（OpenAI クライアントの API キー）として送るか、ブラウザの "
              "/login でサインインに使います。これからはサーバーへのすべてのリクエストにユーザーのトークンが必要です。",
    },
    "admin_mark": {"en": " (admin)", "zh": "（管理员）", "ja": "（管理者）"},
    "no_users": {
        "en": "No users: the server answers as before (loopback without a token, or server.token). "
              "riverse users add NAME adds one.",
        "zh": "没有用户：服务器照旧工作（本机回环地址无需令牌，或使用 server.token）。riverse users add 名字 可添加用户。",
        "ja": "ユーザーはいません。サーバーはこれまでどおり動きます（ループバックならトークン不要、または server.token）。"
              "riverse users add 名前 で追加できます。",
    },
    "user_removed": {
        "en": "Removed user {name}: their token no longer opens the server. What they stored stays in the "
              "database, reachable by nobody through the server.",
        "zh": "已删除用户 {name}：其令牌不再能访问服务器。其保存的内容仍留在数据库中，任何人都无法通过服务器访问。",
        "ja": "ユーザー {name} を削除しました。そのトークンではもうサーバーに入れません。保存した内容はデータベースに残りますが、"
              "サーバーからは誰も見られません。",
    },
    "no_such_user": {
        "en": "there is no user named {name!r}; riverse users list shows them",
        "zh": "没有名为 {name!r} 的用户；riverse users list 可列出所有用户",
        "ja": "{name!r} という名前のユーザーはいません。riverse users list で一覧を表示します",
    },
    "copied": {
        "en": "Copied {source} to {target}: {counts}. Pending approvals are not copied. Point storage.url (or "
              "RIVERSE_DATABASE_URL) at the target to use it.",
        "zh": "已将 {source} 复制到 {target}：{counts}。待处理的审批不会复制。把 storage.url（或 RIVERSE_DATABASE_URL）"
              "指向目标数据库即可使用。",
        "ja": "{source} を {target} にコピーしました：{counts}。保留中の承認はコピーしません。使うには storage.url"
              "（または RIVERSE_DATABASE_URL）をコピー先に向けてください。",
    },
    "serve_users": {
        "en": "{count} users (riverse users list): every request needs one user's token, as 'Authorization: Bearer "
              "<token>' or by signing in at {url}login; each user sees only their own conversations, notes and approvals.",
        "zh": "共 {count} 个用户（riverse users list）：每个请求都需要某个用户的令牌，以 'Authorization: Bearer <令牌>' "
              "发送，或在 {url}login 登录；每个用户只能看到自己的对话、笔记和审批。",
        "ja": "ユーザー {count} 人（riverse users list）：すべてのリクエストにユーザーのトークンが必要です。"
              "'Authorization: Bearer <トークン>' で送るか {url}login でサインインしてください。各ユーザーに見えるのは"
              "自分の会話・メモ・承認だけです。",
    },
    "count": {"en": "{n} {what}", "zh": "{what} {n} 条", "ja": "{what} {n} 件"},
}


def text(key: str, language: str | None = "en", **values: object) -> str:
    return pick(TEXTS[key], language, **values)
