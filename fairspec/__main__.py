from fairspec.cli import main

raise SystemExit(main())
