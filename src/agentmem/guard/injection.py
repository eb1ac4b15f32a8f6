"""Instructions aimed at the assistant, in English, French, Spanish and German (docs/design/guard.md §Guard): overriding
its instructions, changing its role, revealing or sending secrets, hiding things from the user,
posing as system text. Read on the detection copy (lower case, no accents, ' apostrophes)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from agentmem.guard.unicode import _raw_span, _solid
from agentmem.lazyre import lazy_compile

# ----------------------------------------------------------------------------------------------
# Instructions aimed at the assistant (detection copy: lower case, no accents, ' apostrophes)
# ----------------------------------------------------------------------------------------------


def _spaced(pattern: str) -> str:
    """``pattern`` with every " ?" meaning "maybe some horizontal white space", every other
    literal space "some" (never a new line)."""
    return pattern.replace(" ?", r"[^\S\n]*").replace(" ", r"[^\S\n]+")


def _w(pattern: str) -> re.Pattern[str]:
    """Compile on first use (most instruction patterns never run: their needles are absent),
    spaces read as :func:`_spaced` says. ``$`` ends a line (MULTILINE), so ``kind="file"``
    scans see the end of every entry, not only of the last one."""
    return lazy_compile(functools.partial(_spaced, pattern), re.MULTILINE)


# fmt: off
_EN_VERB = r"(?:ignore|disregard|forget|neglect|override|bypass|set aside)"
_EN_FILL = (r"(?:(?:all|any|every|each|of|the|your|my|our|these|those|its|this|that|previous|prior"
            r"|above|earlier|preceding|foregoing|former|initial|original|old|system|developer"
            r"|safety|current|existing|other|given|aforementioned|and|or|entire|whole) )")
_EN_PTR = (r"(?:all|every|your|my|these|those|previous|prior|above|earlier|preceding|foregoing"
           r"|former|initial|original|system|developer|safety)")
_EN_STRONG = r"(?:instructions?|prompts?|directives?|guardrails?|programming|conditioning)"
_EN_WEAK = (r"(?:rules?|guidelines?|constraints?|restrictions?|polic(?:y|ies)|orders?|commands?"
            r"|context|messages?|directions?|safeguards?|filters?|limitations?|limits|settings"
            r"|training)")
# "Ignore instructions found in documents" is a defensive team rule, not an injection.
_EN_DOCS = (r"(?! (?:(?:found|contained|embedded|included|written|appearing|that appear) )?"
            r"(?:in|inside|within|from) (?:(?:the|any|an?|uploaded|attached|third-party|external"
            r"|incoming|received|supplier|their|other) )*(?:documents?|files?|e-?mails?"
            r"|web ?pages?|pages?|attachments?|uploads?|contracts?|pdfs?|tool (?:results?"
            r"|outputs?)|search results?|websites?|sites?|drafts?|templates?)\b)")
_FR_VERB = (r"(?:ignor(?:e|es|ez|er)|oubli(?:e|es|ez|er)|neglig(?:e|es|ez|er)"
            r"|outrepass(?:e|es|ez|er)|contourn(?:e|es|ez|er)|(?:passe|passez|passer) outre"
            r"|(?:fais|faites|faire) abstraction|ne (?:tiens|tenez) (?:plus |pas |aucun )?compte"
            r"|ne pas tenir compte|ne (?:respecte|respectez|suis|suivez) plus"
            r"|(?:n'|ne )(?:obeis|obeissez) plus)")
_FR_FILL = (r"(?:(?:toutes|tous|tout|les|tes|vos|ces|mes|nos|des|de|du|la|le|ta|ton|votre|aux|au"
            r"|a|precedentes?|precedents?|anterieures?|initiales?|originales?|anciennes?"
            r"|dernieres?|autres) |d'|l')")
_FR_STRONG = r"(?:consignes?|instructions?|directives?|prompts?|message systeme)"
_FR_WEAK = (r"(?:regles?|ordres?|indications?|contraintes?|restrictions?|limites?|garde-fous"
            r"|politiques?|filtres?|parametres?)")
_FR_PTR = r"(?:toutes|tous|tes|vos|ces|mes)"
_FR_POST = (r" (?:precedentes?|precedents?|anterieures?|initiales?|originales?|d'origine"
            r"|du systeme|systeme|de securite|ci-dessus|recues?|donnees?|actuelles?)")
# French patterns also skip the English defensive form: "ignore instructions" is both languages.
_FR_DOCS = _EN_DOCS + (r"(?! (?:(?:figurant|contenues?|presentes?|trouvees?|incluses?|ecrites?) )?"
            r"(?:dans|des|de|du) (?:(?:les|des|un|une|le|la|tout|toute|tous) |l')*(?:documents?"
            r"|fichiers?|e-?mails?|courriels?|mails?|pieces? jointes?|pages?|contrats?|sites?"
            r"|pdfs?|modeles?|brouillons?|fournisseurs?)\b)")
# Spanish (detection copy: no accents; "contraseña" is "contrasena")
_ES_VERB = (r"(?:ignor(?:a|e|ad|ar|en|es)|olvid(?:a|e|ad|ar|en|es)|omit(?:e|a|id|ir|an)"
            r"|descart(?:a|e|ad|ar|en)|pasa(?:r)? por alto|haz caso omiso (?:a|de)"
            r"|hagan caso omiso (?:a|de)|no (?:hagas|haga|hagan) caso (?:a|de)"
            r"|deja de (?:seguir|obedecer|respetar)|salta(?:te)?|anula|anular)")
_ES_FILL = (r"(?:(?:todas|todos|toda|todo|las|los|la|el|lo|tus|sus|vuestras|vuestros|estas|esos"
            r"|esas|estos|mis|nuestras|de|del|a|al|y|o|anteriores|previas|previos|iniciales"
            r"|originales|antiguas|demas|otras|dadas|recibidas) )")
_ES_STRONG = (r"(?:instrucciones|instruccion|indicaciones|consignas|directrices|directivas"
              r"|prompts?|ordenes|mensaje del sistema)")
_ES_WEAK = (r"(?:reglas|normas|restricciones|limitaciones|politicas|filtros|limites"
            r"|salvaguardas|pautas)")
_ES_PTR = r"(?:todas|todos|tus|vuestras|estas|esas|mis|sus)"
_ES_POST = (r" (?:anteriores|previas|previos|iniciales|originales|del sistema|de seguridad"
            r"|de arriba|de antes|recibidas|dadas|actuales|que (?:te|os) (?:di|dieron|han dado))")
_ES_DOCS = _EN_DOCS + (r"(?! (?:(?:que (?:se )?[a-z]+|contenidas?|incluidas?|escritas?)"
            r" )?(?:en|de) (?:(?:los|las|un|una|el|la|cualquier|todos|todas) )*(?:documentos?"
            r"|archivos?|ficheros?|correos?|e-?mails?|adjuntos?|paginas?|contratos?|sitios?"
            r"|pdfs?|plantillas?|borradores?|proveedores?|webs?)\b)")
_WHO_ES = r"(?:al |el |los |a los )?(?:usuari[oa]s?|humano|persona)\b"
# German (detection copy: umlauts without their dots, "ß" as "ss")
_DE_VERB = (r"(?:ignorier(?:e|t|en|st)?|vergiss|vergisst|vergesst|vergessen sie|missacht(?:e|et|en|est)?"
            r"|ubergeh(?:e|t|en)?|umgeh(?:e|t|en)?|verwirf|verwerft|verwerfen sie)")
_DE_FILL = (r"(?:(?:du|alle|allen|alles|die|der|den|das|deine|deinen|deiner|ihre|ihren|eure|euren"
            r"|diese|diesen|jegliche|jede|jeglichen|sie|samtliche|samtlichen|bisherigen|vorherigen"
            r"|vorigen|obigen|fruheren|ursprunglichen|vorangegangenen|vorangehenden|gegebenen"
            r"|erhaltenen|alten|anderen|und|oder|von|zuvor) )")
_DE_STRONG = (r"(?:anweisungen|anweisung|instruktionen|befehle|systemprompts?|system-prompts?"
              r"|systemanweisungen|prompts?|direktiven)")
_DE_WEAK = (r"(?:regeln|richtlinien|einschrankungen|beschrankungen|vorschriften|vorgaben"
            r"|filter|grenzen|sicherheitsregeln|schutzmassnahmen)")
_DE_PTR = (r"(?:alle|allen|samtliche|deine|deinen|ihre|eure|diese|bisherigen|vorherigen|vorigen"
           r"|obigen|fruheren|ursprunglichen|vorangegangenen)")
_DE_DOCS = _EN_DOCS + (r"(?! (?:(?:die|welche) )?(?:in|aus|im|aus dem) (?:(?:den|dem|der|einem|einer|allen"
            r"|jedem|jeder) )*(?:[a-z]+(?:en|em|er) )?(?:dokumenten?|dateien?|e-?mails?|mails?"
            r"|anhangen?|anhang"
            r"|webseiten?|seiten?|vertragen?|vertrag|vorlagen?|entwurfen?|entwurf|pdfs?"
            r"|lieferanten)\b)")
_WHO_DE = r"(?:dem |den |der |die )?(?:benutzer(?:in)?|nutzer(?:in)?|anwender(?:in)?|menschen?)\b"
_WHO_EN = r"(?:the )?(?:users?|human|operator|person|customer)\b"
_WHO_FR = r"(?:a |au |aux )?(?:l'utilisat(?:eur|rice)|(?:les )?utilisat(?:eur|rice)s?|l'humain)\b"
# "Do not tell the user [about this | that … | .]" hides something; "Never tell the user a
# clause is fine" or "Don't let the user sign" is an ordinary rule.
_HIDDEN_EN = (r"(?= ?(?:[.,;:!?)]|$| (?:about|that|of|regarding|anything|this|it|what|why|how"
              r"|know|see|find out|notice|learn)\b))")
_HIDDEN_FR = (r"(?= ?(?:[.,;:!?)]|$| (?:de (?:ca|cela|ceci|rien)|qu|que|ce|cela|ceci|rien|quoi"
              r"|pourquoi|comment)\b))")
_REVEAL_EN = (r"(?:system (?:prompt|message|instructions)|hidden (?:prompt|instructions|rules)"
              r"|(?:initial|original) (?:prompt|instructions)|instructions above|your (?:prompt"
              r"|instructions|rules)|(?:api|secret|access|private|ssh) keys?|api tokens?"
              r"|access tokens?|credentials|passwords?|secrets|environment variables|env vars?)\b"
              r"(?! (?:policy|policies|rules?|manager|requirements?|reset|field|format|strength"
              r"|length|guidelines?|complexity|rotation|hygiene|templates?))")
_REVEAL_FR = (r"(?:prompt systeme|prompt|message systeme|(?:instructions|consignes) (?:systeme"
              r"|initiales|cachees|secretes|d'origine)|tes (?:instructions|consignes)"
              r"|vos (?:instructions|consignes)|cles? (?:d')?api|mots de passe|identifiants"
              r"|secrets|jetons? d'acces|variables d'environnement)\b")
_SEND_OBJ = (r"(?:conversation|chat history|chat log|system prompt|secrets?|credentials"
             r"|api keys?|access tokens?|passwords|environment variables|env vars|\.env|ssh keys?"
             r"|private keys?|historique (?:de (?:la )?conversation|du chat)|prompt systeme"
             r"|identifiants|cles? (?:d')?api|mots de passe|variables d'environnement)\b"
             r"(?! (?:summary|summaries|notes|minutes|recap|resume|compte rendu))")

_VOID_EN = (r"(?:void|null(?: and void)?|cancell?ed|invalid|obsolete|revoked|superseded"
            r"|overridden|lifted|inapplicable|non-binding)\b")
_VOID_FR = (r"(?:nulle?s?|caduc(?:s|que|ques)?|annulee?s?|abrogee?s?|obsoletes?"
            r"|non avenue?s?)\b")
_VOID_NEEDLES = ("void", "null", "cancel", "invalid", "obsolet", "revok", "supersed", "overrid",
                 "precedence", "prevail", "lifted", "inapplicable", "binding", "nul", "caduc",
                 "annul", "abrog", "avenu", "prevaut", "prime", "emporte")
_OVERRIDE = "asks the assistant to ignore its instructions"
_ROLE = "tries to change the assistant's role"
_REVEAL = "asks to reveal hidden instructions or secrets"
_CONCEAL = "asks to hide something from the user"
_SPOOF = "poses as system or new instructions"
_SEND = "asks to send data out"

_EN_VERBS = ("ignor", "disregard", "forget", "neglect", "overrid", "bypass", "aside")
_FR_VERBS = ("ignor", "oubli", "neglig", "outrepass", "contourn", "outre", "abstraction",
             "compte", "respect", "suis", "suivez", "obei")
_ES_VERBS = ("ignor", "olvid", "omit", "descart", "alto", "omiso", "caso", "deja", "salta",
             "anula")
_DE_VERBS = ("ignorier", "vergiss", "vergesst", "vergessen", "missacht", "ubergeh", "umgeh",
             "verwirf", "verwerf")
_SEND_NEEDLES = ("conversation", "=chat", "prompt", "secret", "credential", "=key", "=keys",
                 "=token", "=tokens", "password", "=env", "environ", "historique", "identifiant",
                 "=cle", "=cles", "passe")

# (needles, label, negatable, pattern). A pattern runs only when one of its needles occurs in
# the detection copy ("=word": as a whole word); every match of the pattern contains a needle.
# A negatable match right after "never", "do not", "ne", "n'"… is a defensive rule ("Never
# reveal the system prompt") and passes.
_INSTRUCTIONS: list[tuple[tuple[str, ...], str, bool, re.Pattern[str]]] = [
    (_EN_VERBS, _OVERRIDE, True, _w(rf"\b{_EN_VERB} {_EN_FILL}{{0,4}}{_EN_STRONG}\b{_EN_DOCS}")),
    (_EN_VERBS, _OVERRIDE, True, _w(
        rf"\b{_EN_VERB} {_EN_FILL}{{0,3}}{_EN_PTR} {_EN_FILL}{{0,3}}{_EN_WEAK}\b{_EN_DOCS}")),
    (_EN_VERBS, _OVERRIDE, True, _w(
        rf"\b{_EN_VERB} (?:(?:all|everything|anything) (?:(?:that|which) (?:came|comes|was said"
        r"|was written) )?|(?:all )?(?:of )?the )(?:above|foregoing|preceding|before|earlier"
        r"|previously|so far|until now|up to now)\b(?! (?:the|a|an|this|that|these|each|any|it"
        r"|its|their|your|our)\b)")),
    (_EN_VERBS, _OVERRIDE, True, _w(
        rf"\b{_EN_VERB} (?:all|everything|anything|what) (?:you (?:were|have been|'ve been|are"
        r"|know|learned|have learned)|(?:i|we) (?:said|told you|wrote))\b")),
    (("=you", "=your", "pretend"), _ROLE, False, _w(
        r"\b(?:you are|you're|you will be) (?:now|no longer)\b|\bfrom now on,? you (?:are"
        r"|will be|shall be|will act|must act|act)\b|\bpretend (?:to be|you are|that you are)\b"
        r"|\bact as if you (?:have|had) no\b|\byou have no (?:rules|restrictions|limits"
        r"|limitations|guidelines|filters)\b|\byour new (?:role|identity|name|persona"
        r"|instructions|task|goal) is\b")),
    (("=role", "roleplay", "=mode", "jailbreak", "anything"), _ROLE, False, _w(
        r"\brole-?play as\b|\b(?:enable|enter|activate|switch to|turn on|unlock) (?:the )?"
        r"(?:developer|dan|god|jailbreak|unrestricted) mode\b|\b(?:dan|god|jailbreak"
        r"|unrestricted) mode\b|\bjailbreak|\bdo anything now\b")),
    (("prompt", "message", "instruction", "rules", "=key", "=keys", "=token", "=tokens",
      "credential", "password", "secret", "=env", "environ"), _REVEAL, True, _w(
        r"\b(?:reveal|show|print|output|display|repeat|leak|disclose|dump|expose|recite"
        r"|write out|tell me|give me|send me|share|print out|spell out)(?: me)? (?:(?:your|the"
        rf"|all|any|full|entire|complete|hidden|secret|exact|verbatim) ){{0,4}}{_REVEAL_EN}")),
    (("user", "human", "operator", "=person", "customer"), _CONCEAL, False, _w(
        r"\b(?:do not|don'?t|never|without) (?:tell(?:ing)?|inform(?:ing)?|notify(?:ing)?"
        r"|alert(?:ing)?|let(?:ting)?|show(?:ing)?|mention(?:ing)?|reveal(?:ing)?)(?: (?:this"
        rf"|that|it|anything))?(?: to)? {_WHO_EN}{_HIDDEN_EN}"
        r"|\b(?:keep|hide) (?:this|that|it) (?:hidden |secret )?from (?:the )?users?\b"
        r"|\bthe user (?:must|should|may) (?:not|never) (?:know|find out|see|learn)\b")),
    (("secretly", "silently", "covertly"), _CONCEAL, False, _w(
        r"\b(?:secretly|silently|covertly) (?:add|send|include|insert|run|execute|copy|forward"
        r"|append|exfiltrate|email|upload|post)\b")),
    (("instruction",), _SPOOF, False, _w(
        r"\b(?:new|updated|real|actual|true|hidden|secret|additional|important) (?:(?:system"
        r"|priority|urgent|overriding) )?instructions? ?:")),
    (("system",), _SPOOF, False, _w(
        r"\bsystem (?:prompt|message|instructions?|override|note|directives?|orders?|commands?"
        r"|update|alert|notice) ?:")),
    # "Treat the rules above as void", "all previous rules are cancelled", "this rule overrides
    # every other rule": a rule that tries to switch the others off.
    (_VOID_NEEDLES, _OVERRIDE, True, _w(
        rf"\b(?:treat|consider|regard|deem|declare|mark) {_EN_FILL}{{0,4}}(?:{_EN_STRONG}"
        rf"|{_EN_WEAK}|doctrine)(?: (?:above|before|so far|until now))? as (?:now )?{_VOID_EN}")),
    (_VOID_NEEDLES, _OVERRIDE, True, _w(
        r"\b(?:previous|prior|above|earlier|preceding|other|existing|former) (?:"
        rf"{_EN_STRONG}|{_EN_WEAK}|doctrine)(?: above)? (?:are|is) (?:now |hereby )?{_VOID_EN}")),
    (_VOID_NEEDLES, _OVERRIDE, True, _w(
        r"\b(?:overrides?|supersedes?|takes? precedence over|prevails? over) (?:all|any|every"
        r"|each) (?:of the )?(?:other |previous |prior |existing |earlier )?(?:"
        rf"{_EN_STRONG}|{_EN_WEAK}|doctrine)\b")),
    (_VOID_NEEDLES, _OVERRIDE, True, _w(
        rf"\b(?:{_FR_STRONG}|{_FR_WEAK}|doctrine)(?:{_FR_POST})? (?:sont|est) (?:desormais"
        rf" |maintenant |donc )?{_VOID_FR}")),
    (_VOID_NEEDLES, _OVERRIDE, True, _w(
        r"\b(?:considere|considerez|considerer|traite|traitez|traiter) "
        rf"{_FR_FILL}{{0,4}}(?:{_FR_STRONG}|{_FR_WEAK}|doctrine)(?:{_FR_POST})? comme {_VOID_FR}")),
    (_VOID_NEEDLES, _OVERRIDE, True, _w(
        r"\b(?:prevaut|prime|l'emporte) sur (?:toutes |tous )?(?:les )?(?:autres )?(?:"
        rf"{_FR_STRONG}|{_FR_WEAK}|doctrine)\b")),
    (("=ai", "assistant", "llm", "model", "agent", "=bot", "chatbot", "claude", "gpt"),
     _SPOOF, False, _w(
        r"\b(?:note|message|instructions?) (?:to|for) (?:the )?(?:ai|assistant|llm|model|agent"
        r"|chatbot|claude|chatgpt|gpt|bot)\b ?[:,\u2014-]|\b(?:attention|hey|dear) (?:ai|assistant|llm"
        r"|claude|chatgpt|gpt|model|agent)\b|\bif you are an? (?:ai|llm|language model"
        r"|assistant|bot|chatbot)\b|\b(?:the )?(?:ai|assistant|llm|model|agent|claude|chatgpt)"
        r" (?:must|should|shall|will) (?:now )?(?:ignore|forget|disregard|obey|comply|reveal"
        r"|bypass)\b")),
    (_SEND_NEEDLES, _SEND, True, _w(
        r"\b(?:send|post|upload|forward|transmit|exfiltrate|email|e-mail|leak|copy|paste)"
        rf"(?: (?:the|all|this|your|our|entire|full|whole|complete|current))* {_SEND_OBJ}")),
    # Spanish
    (_ES_VERBS, _OVERRIDE, True, _w(rf"\b{_ES_VERB} {_ES_FILL}{{0,4}}{_ES_STRONG}\b{_ES_DOCS}")),
    (_ES_VERBS, _OVERRIDE, True, _w(
        rf"\b{_ES_VERB} {_ES_FILL}{{0,3}}{_ES_PTR} {_ES_FILL}{{0,2}}{_ES_WEAK}\b{_ES_DOCS}")),
    (_ES_VERBS, _OVERRIDE, True, _w(rf"\b{_ES_VERB} {_ES_FILL}{{0,4}}{_ES_WEAK}{_ES_POST}\b")),
    (_ES_VERBS, _OVERRIDE, True, _w(
        rf"\b{_ES_VERB} (?:todo )?(?:lo (?:anterior|de arriba|que (?:te|os) (?:dije|dijeron"
        r"|han dicho))|todo lo que sabes)\b|\bolvid(?:a|ad|e) todo(?= ?[.,;:!]|$)")),
    (("=eres", "=sois", "finge", "fingid", "=rol", "=papel", "=modo", "=tienes"), _ROLE, False, _w(
        r"\b(?:ahora|ya) (?:eres|sois|seras|sereis)\b|\b(?:a partir de ahora|desde ahora|de ahora"
        r" en adelante),? (?:eres|sois|seras|sereis|actuaras|tu rol es|tu papel es)\b"
        r"|\bya no eres\b|\b(?:finge|fingid|finja) (?:ser|que eres)\b|\bhaz como si (?:fueras"
        r"|no tuvieras)\b|\b(?:no tienes|ya no tienes) (?:ninguna |ningun |mas )?(?:reglas?"
        r"|restricciones|restriccion|limites?|limitaciones|filtros)\b|\btu nuevo (?:rol|papel"
        r"|nombre|objetivo) es\b|\b(?:activa|activar|entra en|pasa al?) (?:el )?modo"
        r" (?:desarrollador|dan|sin (?:restricciones|limites|filtros))\b"
        r"|\bmodo (?:dan|sin (?:restricciones|limites|filtros))\b")),
    (("prompt", "instruccion", "=clave", "=claves", "contrasena", "credencial", "secreto",
      "=token", "=tokens", "variable"), _REVEAL, True, _w(
        r"\b(?:revel|muestr|ensen|imprim|dim|dam|compart|repit|copi|escrib|envi|mand|filtr)"
        r"(?:a|e|ad|ar|en|ame|eme|ale|anos)?(?: me)? (?:(?:el|la|los|las|tu|tus|todo|todas|todos"
        r"|completo|completas|exacto|exactas|palabra por palabra) ){0,3}(?:prompt(?: del sistema)?"
        r"|mensaje del sistema|instrucciones (?:del sistema|ocultas|secretas|iniciales|originales)"
        r"|tus instrucciones|claves? (?:de )?api|contrasenas|credenciales|secretos|tokens? de acceso"
        r"|variables de entorno)\b")),
    (("usuari", "humano", "=persona"), _CONCEAL, False, _w(
        r"\bno (?:se lo |le |les |lo |la )?(?:digas|diga|digais|cuentes|cuente|menciones|mencione"
        r"|informes|informe|avises|avise|muestres|muestre|reveles|revele)(?: nada)?"
        rf"(?: (?:de|sobre) (?:esto|eso|ello))?(?: a)? {_WHO_ES}"
        rf"|\bsin (?:decir(?:selo|le)?|avisar|informar|notificar)(?: nada)?(?: a)? {_WHO_ES}"
        r"|\ba espaldas del usuari[oa]\b|\b(?:ocultale|oculta|esconde|escondele) (?:esto |eso )?"
        r"(?:al|a los) usuari[oa]s?\b|\bel usuari[oa] no (?:debe|puede|tiene que) (?:saber"
        r"(?:lo)?|enterarse|verlo)\b")),
    (("secretamente", "silenciosamente", "escondidas", "discretamente"), _CONCEAL, False, _w(
        r"\b(?:secretamente|silenciosamente|a escondidas|discretamente),? (?:anade|envia|incluye"
        r"|inserta|copia|ejecuta|manda|sube)")),
    (("instruccion", "indicacion", "directriz", "directrices", "sistema"), _SPOOF, False, _w(
        r"\b(?:nuevas?|verdaderas?|autenticas?) (?:instrucciones|instruccion|indicaciones|indicacion"
        r"|directrices|directriz)(?: (?:del sistema|prioritarias?|importantes?|urgentes?))? ?:|\b(?:instrucciones|mensaje|prompt|aviso) del sistema ?:")),
    (("=ia", "asistente", "agente", "modelo", "llm", "=bot", "chatbot", "claude", "gpt"),
     _SPOOF, False, _w(
        r"\b(?:nota|mensaje|instrucciones?) (?:para|a) (?:la |el )?(?:ia|asistente|agente"
        r"|modelo|llm|chatbot|claude|chatgpt|bot)\b ?[:,\u2014-]|\bsi eres una? (?:ia|inteligencia"
        r" artificial|asistente|modelo|llm|agente|chatbot|bot)\b|\b(?:la ia|el asistente"
        r"|el agente|el modelo|claude) (?:debe|debera|tiene que|va a) (?:ahora )?(?:ignorar"
        r"|olvidar|obedecer|revelar|saltarse)\b")),
    (("conversacion", "historial", "prompt", "contrasena", "credencial", "=clave", "=claves",
      "variable", "secreto"), _SEND, True, _w(
        r"\b(?:envi|mand|reenvi|transmit|sub|public|copi|filtr|exfiltr)(?:a|e|ad|ar|en|ale)"
        r"(?: (?:el|la|los|las|todo|toda|todos|todas|tu|tus|este|esta))* (?:historial(?: de (?:la"
        r" )?conversacion| del chat)?|conversacion|prompt del sistema|contrasenas|credenciales"
        r"|claves? (?:de )?api|variables de entorno|secretos)\b"
        r"(?! (?:resumid[oa]s?|resumen|notas|acta))")),
    # German
    (_DE_VERBS, _OVERRIDE, True, _w(rf"\b{_DE_VERB} {_DE_FILL}{{0,4}}{_DE_STRONG}\b{_DE_DOCS}")),
    (_DE_VERBS, _OVERRIDE, True, _w(
        rf"\b{_DE_VERB} {_DE_FILL}{{0,3}}{_DE_PTR} {_DE_FILL}{{0,2}}{_DE_WEAK}\b{_DE_DOCS}")),
    (_DE_VERBS, _OVERRIDE, True, _w(
        rf"\b{_DE_VERB} (?:einfach )?alles,? (?:was (?:oben|zuvor|bisher|vorher) (?:steht|stand"
        r"|gesagt wurde)|(?:oben|zuvor|bisher|vorher) gesagte|vorherige|bisherige|obige)\b"
        r"|\bvergiss alles(?= ?[.,;:!]|$)")),
    (("beacht", "befolg", "kraft", "=halte", "=haltet"), _OVERRIDE, True, _w(
        rf"\b(?:beachte|beachtet|befolge|befolgt|halte dich an|haltet euch an) {_DE_FILL}{{0,4}}"
        rf"(?:{_DE_STRONG}|{_DE_WEAK}) (?:nicht mehr|ab sofort nicht|ab jetzt nicht|nicht)\b"
        rf"|\bsetze {_DE_FILL}{{0,4}}(?:{_DE_STRONG}|{_DE_WEAK}) ausser kraft\b")),
    (("=bist", "=seid", "=wirst", "handelst", "agierst", "=als", "=gib", "=hast", "=habt",
      "=deine", "entwicklermodus", "modus"), _ROLE,
     False, _w(
        r"\bdu bist (?:ab )?(?:jetzt|nun|ab sofort|von nun an|ab heute)\b|\b(?:ab jetzt|ab sofort"
        r"|von nun an|ab heute),? (?:bist du|seid ihr|wirst du|handelst du|agierst du)\b"
        r"|\bdu bist (?:nicht mehr|kein(?:e)? [a-z]+ mehr)\b|\b(?:tu|tue|tut) so,? als (?:ob du"
        r"|warst du|waret ihr)\b|\bgib vor,? (?:ein|eine|der|die|das)?\b.{0,30}\bzu sein\b"
        r"|\b(?:du hast|ihr habt) (?:ab jetzt |ab sofort |jetzt )?keine (?:regeln|einschrankungen"
        r"|beschrankungen|grenzen|filter|richtlinien)(?: mehr)?\b|\bdeine neue (?:rolle"
        r"|identitat|aufgabe) ist\b|\bentwicklermodus\b|\b(?:dan|jailbreak)-?modus\b")),
    (("prompt", "anweisung", "schlussel", "passwort", "passworter", "zugangsdaten", "geheim",
      "=token", "=tokens", "umgebungsvariablen"), _REVEAL, True, _w(
        r"\b(?:zeig|gib|nenn|verrat|druck|wiederhol|teil|schreib|schick|send|offenbar|kopier)"
        r"(?:e|t|en)?(?: mir| uns)?(?: (?:den|die|das|deine|deinen|dein|alle|deiner|ihre|ihren"
        r"|vollstandig|vollstandigen|genauen|exakten|wortlich|versteckten|ursprunglichen|geheimen"
        r"))* (?:system-?prompts?|system-?anweisungen|(?:versteckten|geheimen|ursprunglichen)"
        r" anweisungen|anweisungen|api-?schlussel|passworter|passwort|zugangsdaten|geheimnisse"
        r"|zugriffstoken|tokens?|umgebungsvariablen)\b(?!(?:-| )(?:richtlinie|regeln|manager|vorgaben))")),
    (("benutzer", "nutzer", "anwender", "mensch"), _CONCEAL, False, _w(
        rf"\bsag(?:e|t)? (?:es |das |dies |davon )?{_WHO_DE} (?:nichts|nicht)\b"
        rf"|\bsag(?:e|t)? (?:es |das |dies )?(?:nicht|nichts) {_WHO_DE}"
        rf"|\bohne (?:es )?{_WHO_DE} (?:zu )?(?:informieren|sagen|benachrichtigen|warnen|fragen)"
        rf"|\b(?:verheimliche|verschweige|verberge|verbirg)\b.{{0,30}}{_WHO_DE}"
        rf"|\b(?:der|die) (?:benutzer|nutzer|anwender)(?:in)? (?:darf|soll) (?:es |das |davon )?"
        r"(?:nicht|nie|niemals|nichts) (?:erfahren|wissen|sehen|merken)\b")),
    (("heimlich", "unbemerkt", "stillschweigend"), _CONCEAL, False, _w(
        r"\b(?:heimlich|unbemerkt|stillschweigend) (?:hinzufugen|fuge|fug|sende|schicke|kopiere"
        r"|fuhre|lade|leite)\b")),
    (("anweisung", "system", "befehl", "vorgabe"), _SPOOF, False, _w(
        r"\b(?:neue|echte|wahre|eigentliche|geheime|vorrangige|dringende) (?:anweisungen|anweisung"
        r"|befehle|vorgaben)(?: mit vorrang)? ?:|\bsystem-?(?:anweisungs?|nachricht|prompt|befehl|hinweis)(?:en)? ?:")),
    (("=ki", "assistent", "agent", "modell", "llm", "=bot", "chatbot", "claude", "gpt"),
     _SPOOF, False, _w(
        r"\b(?:hinweis|nachricht|notiz|anweisungen?) (?:an|fur) (?:die |den |das )?(?:ki"
        r"|assistenten|agenten|modell|llm|chatbot|claude|chatgpt|bot)\b ?[:,\u2014-]"
        r"|\bwenn du (?:eine |ein )?(?:ki|kunstliche intelligenz|assistent|sprachmodell|llm"
        r"|chatbot|bot) bist\b|\b(?:die ki|der assistent|der agent|das modell|claude)"
        r" (?:muss|soll|wird) (?:jetzt |ab sofort )?(?:\w+ )?(?:ignorieren|vergessen|befolgen"
        r"|preisgeben|umgehen)\b")),
    (("verlauf", "unterhaltung", "gesprach", "prompt", "passwort", "passworter", "zugangsdaten",
      "schlussel", "umgebungsvariablen", "geheim"), _SEND, True, _w(
        r"\b(?:send|schick|leit|ubermittl|ubertrag|lad|post|kopier|exfiltrier)(?:e|t|en)?"
        r"(?: (?:den|die|das|deinen|deine|alle|gesamten|ganzen|kompletten|vollstandigen))*"
        r" (?:chat-?verlauf|gesprachsverlauf|verlauf|unterhaltung|gesprach|system-?prompt"
        r"|passworter|zugangsdaten|api-?schlussel|umgebungsvariablen|geheimnisse)\b"
        r"(?! (?:zusammenfassung|protokoll|notizen))")),
    # French
    (_FR_VERBS, _OVERRIDE, True, _w(rf"\b{_FR_VERB} {_FR_FILL}{{0,4}}{_FR_STRONG}\b{_FR_DOCS}")),
    (_FR_VERBS, _OVERRIDE, True, _w(
        rf"\b{_FR_VERB} {_FR_FILL}{{0,3}}{_FR_PTR} {_FR_FILL}{{0,2}}{_FR_WEAK}\b{_FR_DOCS}")),
    (_FR_VERBS, _OVERRIDE, True, _w(rf"\b{_FR_VERB} {_FR_FILL}{{0,4}}{_FR_WEAK}{_FR_POST}\b")),
    (_FR_VERBS, _OVERRIDE, True, _w(
        rf"\b{_FR_VERB} (?:tout )?(?:ce qui (?:precede|est (?:au-dessus|ci-dessus|plus haut))"
        r"|ce qu'on t'a dit|ce que (?:l'on|je|on) t'a dit|tout ce que tu sais)\b"
        r"|\boubli(?:e|ez) tout(?= ?[.,;:!]|$)")),
    (("=tu", "=vous", "t'es", "semblant", "=role", "=mode"), _ROLE, False, _w(
        r"\b(?:tu es|vous etes|t'es) (?:desormais|maintenant|a present|dorenavant"
        r"|a partir de maintenant)\b|\b(?:desormais|dorenavant|a partir de maintenant"
        r"|a present),? (?:tu es|vous etes|tu seras|vous serez|tu agiras|vous agirez"
        r"|ton role est|votre role est)\b|\b(?:tu n'es plus|vous n'etes plus)\b"
        r"|\b(?:fais|faites) semblant d'etre\b|\b(?:ton|votre) nouveau role est\b"
        r"|\b(?:tu n'as|vous n'avez) (?:plus )?(?:aucune?|pas de) (?:regle|restriction|limite"
        r"|consigne)s?\b|\b(?:active|activez|activer|passe|passez|passer) (?:en |le )?mode"
        r" (?:developpeur|dan|sans (?:restriction|limite|filtre)s?)\b|\bmode (?:dan|sans"
        r" (?:restriction|limite|filtre)s?)\b")),
    (("prompt", "message", "instruction", "consigne", "=cle", "=cles", "passe", "identifiant",
      "secret", "jeton", "variable"), _REVEAL, True, _w(
        r"\b(?:revel|affich|montr|donn|divulgu|repet|imprim|recit|copi|communiqu|envoi|partag)"
        r"(?:e|es|ez|er)(?:-moi| moi)? (?:(?:ton|ta|tes|votre|vos|le|la|les|tout|toutes|tous"
        rf"|mot pour mot|integralement|exactement) |l'){{0,3}}{_REVEAL_FR}")),
    (("utilisat", "humain"), _CONCEAL, False, _w(
        r"\b(?:ne |n')(?:le |la |les |lui |leur |l'|en |rien )?(?:dis|dites|dire|mentionnez?"
        r"|mentionner|signalez?|signaler|revelez?|reveler|montrez?|montrer|indiquez?|indiquer"
        r"|parlez?|parler|previens|prevenez|prevenir|informez?|informer)(?: (?:pas|rien|jamais"
        rf"|surtout|en aucun cas))+\b[^.\n]{{0,40}}?{_WHO_FR}{_HIDDEN_FR}"
        r"|\bne (?:pas|jamais|rien) (?:le |la |les |lui |l'|en )?(?:dire|mentionner|signaler"
        rf"|reveler|montrer|indiquer|preciser|avouer|communiquer)\b[^.\n]{{0,40}}?{_WHO_FR}"
        rf"{_HIDDEN_FR}"
        r"|\bsans (?:le |en |lui )?(?:dire|informer|prevenir|avertir|mentionner|signaler)"
        rf"(?: a| au)? ?{_WHO_FR}|\ba l'insu de l'utilisat(?:eur|rice)\b"
        r"|\b(?:cache|cachez|cacher|dissimule|dissimulez|dissimuler) (?:le |la |les |ceci "
        r"|cela |ca )?a l'utilisat(?:eur|rice)\b|\bl'utilisat(?:eur|rice) ne doit (?:pas"
        r"|jamais) (?:le )?(?:savoir|voir|apprendre)\b")),
    (("secretement", "discretement", "cachette"), _CONCEAL, False, _w(
        r"\b(?:secretement|discretement|en cachette) (?:ajoute|envoie|inclus|insere|copie"
        r"|transmets|execute)")),
    (("instruction", "consigne", "directive", "prompt", "message"), _SPOOF, False, _w(
        r"\b(?:nouvelles?|vraies?|veritables?) (?:instructions?|consignes?|directives?)"
        r"(?: (?:systeme|prioritaires?|importantes?|urgentes?))? ?:|\b(?:instructions?|consignes?|prompt|message) systeme ?:")),
    (("=ia", "assistant", "agent", "modele", "llm", "=bot", "chatbot", "claude", "gpt",
      "intelligence"),
     _SPOOF, False, _w(
        r"\b(?:note|message|instructions?) (?:pour|a|a l'attention de) (?:l'|le |la )?(?:ia"
        r"|assistant|agent|modele|llm|chatbot|claude|chatgpt|bot)\b ?[:,\u2014-]|\bsi tu es une? (?:ia"
        r"|intelligence artificielle|assistant|modele|llm|agent|chatbot|bot)\b|\b(?:l'ia"
        r"|l'assistant|l'agent|le modele|claude) (?:doit|devra|va) (?:desormais |maintenant )?"
        r"(?:ignorer|oublier|obeir|reveler|contourner)\b")),
    (_SEND_NEEDLES, _SEND, True, _w(
        r"\b(?:envoi|transmet|transmett|copi|publi|post|exfiltr|expedi)(?:e|es|ez|er|s|re)?"
        rf" (?:(?:la|le|les|toute|tout|toutes|tous|ta|ton|tes|cette|ce) |l')*{_SEND_OBJ}")),
]
# fmt: on
# Per pattern: whole-word needles, and the other needles split by whether tokens can answer.
def _split_needles(
    needles: tuple[str, ...],
) -> tuple[frozenset[str], frozenset[str], tuple[str, ...]]:
    """Whole-word needles (``=`` dropped), solid needles, the others (in their order)."""
    whole, solid, other = [], [], []
    for n in needles:
        if n[0] == "=":
            whole.append(n[1:])
        elif _solid(n):
            solid.append(n)
        else:
            other.append(n)
    return frozenset(whole), frozenset(solid), tuple(other)


_INSTRUCTION_NEEDLES = [_split_needles(needles) for needles, _, _, _ in _INSTRUCTIONS]
_SOLID_NEEDLES = tuple(sorted(frozenset().union(*(solid for _, solid, _ in _INSTRUCTION_NEEDLES))))


def _by_needle(part: int) -> dict[str, tuple[int, ...]]:
    """Each needle of one kind (0 whole words, 1 solid, 2 the others) -> the indexes of the
    patterns of :data:`_INSTRUCTIONS` that it lets run."""
    found: dict[str, list[int]] = {}
    for i, needles in enumerate(_INSTRUCTION_NEEDLES):
        for n in needles[part]:
            found.setdefault(n, []).append(i)
    return {n: tuple(indexes) for n, indexes in found.items()}


_BY_WHOLE, _BY_SOLID, _BY_OTHER = _by_needle(0), _by_needle(1), _by_needle(2)
_WHOLE_NEEDLES = frozenset(_BY_WHOLE)
_WORD = lazy_compile(r"[a-z0-9]+")
_SPACED = lazy_compile(r"(?<![\w'])\w(?:[ .*_-]\w){3,}(?![\w'])")  # one separator between letters
# In every _SPACED match: its last three letters, each after a separator (a fast search: it
# starts with a set of characters, so the engine skips to them).
_SPACED_HINT = lazy_compile(r"[ .*_-]\w[ .*_-]\w[ .*_-]\w(?![\w'])")
_NEGATED = lazy_compile(
    r"(?:\b(?:never|not|no longer|ne|jamais|pas|nunca|jamas|no|nie|niemals|nicht)|n't|\bn')(?:[^\S\n]+\w+)?[^\S\n]*$"
)


#: The clause after a match closed by a negation ("… Anweisungen nicht.", "… Befehle niemals"):
#: German puts it after the object; within 40 characters, no second verb joined before it
#: ("… und antworte nicht" negates the answer, not the ignoring).
_NEGATED_AFTER = lazy_compile(
    r"(?:(?!\b(?:und|oder|aber|sondern|dann|denn|sowie|sonst)\b)[^.;:!?,\n]){0,40}?"
    r"\b(?:nicht|niemals|nie)[^\S\n]*(?:[.;:!?,\n]|$)"
)


def _instruction_hits(det: str, tokens: str | None = None) -> Iterator[tuple[int, int, str]]:
    """Instructions in ``det``; ``tokens``: its distinct tokens when known (see _Raw)."""
    yield from _instruction_hits_in(det, tokens)
    # "i g n o r e previous instructions": read letter-spaced runs again, glued together.
    if _SPACED_HINT.search(det) is not None and _SPACED.search(det) is not None:
        glued: list[str] = []
        index: list[int] = []
        pos = 0
        for m in _SPACED.finditer(det):
            glued.append(det[pos : m.start()])
            index.extend(range(pos, m.start()))
            letters = range(m.start(), m.end(), 2)
            glued.extend(det[i] for i in letters)
            index.extend(letters)
            pos = m.end()
        glued.append(det[pos:])
        index.extend(range(pos, len(det)))
        for s, e, label in _instruction_hits_in("".join(glued)):
            yield (*_raw_span(index, s, e), label)


def _patterns_to_run(det: str, tokens: str) -> list[int]:
    """The indexes of the patterns of :data:`_INSTRUCTIONS` one of whose needles occurs in
    ``det`` (``tokens``: its distinct tokens), in order: each needle is looked up once, not
    once per pattern (tests/guard/test_scanner.py compares it with asking every pattern)."""
    runs: set[int] = set()
    for word in _WHOLE_NEEDLES.intersection(_WORD.findall(tokens)):
        runs.update(_BY_WHOLE[word])
    for n in _SOLID_NEEDLES:
        if n in tokens:
            runs.update(_BY_SOLID[n])
    for n, indexes in _BY_OTHER.items():
        if n in det:
            runs.update(indexes)
    return sorted(runs)


def _instruction_hits_in(det: str, tokens: str | None = None) -> Iterator[tuple[int, int, str]]:
    if tokens is None:
        tokens = "\n".join(set(det.split()))  # det's words are its tokens' words (see _Raw)
    for i in _patterns_to_run(det, tokens):
        _, label, negatable, rx = _INSTRUCTIONS[i]
        for m in rx.finditer(det):
            if negatable and _NEGATED.search(det, max(0, m.start() - 40), m.start()):
                continue
            if (
                negatable
                and det.startswith(_DE_VERBS, m.start())
                and _NEGATED_AFTER.match(det, m.end())
            ):
                continue  # "Ignoriere die vorherigen Anweisungen nicht.": German's "nicht" last
            yield m.start(), m.end(), f"instruction aimed at the assistant: {label}"
